"""Build step: toolchain detection, compiling the port, diagnostics."""
