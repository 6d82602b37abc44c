"""Click commands: each parses options, calls one core function and renders its result."""
