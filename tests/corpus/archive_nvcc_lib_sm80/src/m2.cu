// Archive member m2.o (unreferenced)
__device__ int m2_data = 200;
__device__ __noinline__ int m2_func(int x) { return x * m2_data; }
__global__ void k_m2(int *out) { out[0] = m2_func(out[1]); }
