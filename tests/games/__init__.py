"""Games written only for the tests (registered by the tests that use them)."""
