__device__ __noinline__ int plane(int x) { return x + (int)blockIdx.z; }
