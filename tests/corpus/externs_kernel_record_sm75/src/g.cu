__device__ __noinline__ int g(int x) { int *q = (int *)malloc(8); return x + (int)(long)q; }
