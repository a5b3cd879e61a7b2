// Written for culdb's corpus: -G shared variables on sm_100 (a static array in a kernel, module-level ones reached by both kernels and by one, an extern array), named by a device function and the kernels.
extern __shared__ __align__(16) char sbuf[];
__shared__ int modv[5];
__shared__ int one[3];
__device__ __noinline__ void put(int i, char v) { sbuf[i] = v; modv[i % 5] = v; }
__global__ void k1(char *o) { put(threadIdx.x, 1); one[threadIdx.x % 3] = 2; __syncthreads(); o[threadIdx.x] = sbuf[threadIdx.x ^ 1] + one[1]; }
__global__ void k2(char *o) { __shared__ float st[3]; st[threadIdx.x % 3] = 1; put(threadIdx.x, st[0]); o[0] = sbuf[0]; }
