__device__ double ext_fn(double x, char c) { return x + c; }
