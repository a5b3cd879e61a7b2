// Written for culdb's corpus: one kernel using an extern __shared__ array, built with -G for sm_100 (the array at the reserved 0x400, no section symbol for the kernel's shared section).
extern __shared__ __align__(16) char sbuf[];
__global__ void k1(char *o) { sbuf[threadIdx.x] = 1; __syncthreads(); o[threadIdx.x] = sbuf[threadIdx.x ^ 1]; }
