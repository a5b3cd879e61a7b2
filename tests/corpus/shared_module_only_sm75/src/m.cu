// Kernels with no shared memory of their own on sm_75: one reaches a
// file-scope __shared__ array directly, one through a device function (each
// new .nv.shared.<k> gets a section symbol on every architecture; for an
// extern array alone only on sm_90: shared_dynamic_kernels_sm75); one has
// its own.
__shared__ float tile[64];
__device__ __noinline__ float peek(int i) { return tile[i & 63]; }
__global__ void k_module(float *p) { tile[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[threadIdx.x] = tile[63 - threadIdx.x]; }
__global__ void k_through(float *p) { p[threadIdx.x] = peek(threadIdx.x); }
__global__ void k_own(float *p) { __shared__ float mine[16]; mine[threadIdx.x] = p[0]; __syncthreads(); p[threadIdx.x] = mine[15 - threadIdx.x]; }
