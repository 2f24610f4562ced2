// axpy helpers (no CUDA API used)
float axpy(float a, float x, float y) { return a * x + y; }
