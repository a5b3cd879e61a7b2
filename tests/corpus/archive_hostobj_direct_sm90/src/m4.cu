// Archive member m4.o (unreferenced, no kernel): only a device variable and a
// device function.
__device__ int m4_data[4] = {4, 4, 4, 4};
__device__ __noinline__ int m4_func(int x) { return x - m4_data[x & 3]; }
