// Written for culdb's corpus: a reproducer made while checking the -G real-world sweep.
extern __shared__ float dyn[];
__device__ __noinline__ int dev(int *p) { __shared__ int s_dev[64]; s_dev[threadIdx.x] = p[threadIdx.x]; __syncthreads(); return s_dev[63 - threadIdx.x] + dyn[2]; }
__global__ void k1(int *p) { __shared__ float a1[32]; a1[threadIdx.x] = p[0]; p[threadIdx.x] = dev(p) + a1[0] + dyn[1]; }
__global__ void k2(int *p) { p[1] = dev(p); }
__global__ void k3(int *p) { p[1] = dyn[0]; }
