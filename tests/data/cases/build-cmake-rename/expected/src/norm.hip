// norm helpers (no CUDA API used)
float square(float x) { return x * x; }
