// device helpers (no CUDA API used)
int twice(int x) { return 2 * x; }
