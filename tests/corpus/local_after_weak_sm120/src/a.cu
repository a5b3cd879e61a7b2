// The kernel that calls the library.
extern __device__ int lib_entry(int x, int *p);
__global__ void k_calls(int *p) { p[threadIdx.x] = lib_entry(threadIdx.x, p); }
