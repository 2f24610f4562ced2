"""porter: port CUDA code to AMD HIP."""

__version__ = "0.1.0"
