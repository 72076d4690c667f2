"""What people see and use: readable narration now, the terminal client later."""
