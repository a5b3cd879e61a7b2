// Written for culdb's corpus: one kernel using an extern __shared__ array, built with -G.
extern __shared__ float buf[];
__global__ void k(float *p) { buf[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[threadIdx.x] = buf[31 - threadIdx.x]; }
