"""The peer runtime (asyncio): protocol + transport + discovery + persistence."""
