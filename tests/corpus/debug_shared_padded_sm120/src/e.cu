// Written for culdb's corpus (as debug_shared_padded_sm75, for sm_120): a static __shared__ in dev(), used by k1, and an extern array read through getp(), called by k1 and k2
extern __shared__ int dyn[];
__device__ __noinline__ int dev(int *p) { __shared__ int s[64]; s[threadIdx.x] = p[threadIdx.x]; __syncthreads(); return s[63 - threadIdx.x]; }
__device__ __noinline__ int *getp() { return dyn; }
__global__ void k1(int *p) { int *d = getp(); d[threadIdx.x] = dev(p); p[0] = d[3]; }
__global__ void k2(int *p) { int *d = getp(); d[threadIdx.x] = p[0]; __syncthreads(); p[1] = d[5]; }
