// File-scope __shared__ arrays (.nv_debug.shared) used by two kernels that
// have no shared memory of their own; a third kernel has its own.
__shared__ float tileA[64];
__shared__ float tileB[64];
__global__ void kOne(float *p) { tileA[threadIdx.x] = p[0]; tileB[threadIdx.x] = 1; __syncthreads(); p[1] = tileA[threadIdx.x ^ 1] + tileB[2]; }
__global__ void kTwo(float *p) { tileB[threadIdx.x] = p[0]; tileA[threadIdx.x] = 2; __syncthreads(); p[1] = tileB[threadIdx.x ^ 1] + tileA[3]; }
__global__ void kOwn(float *p) { __shared__ float mine[32]; mine[threadIdx.x] = p[0]; __syncthreads(); p[1] = mine[threadIdx.x ^ 1]; }
void run(float *p) { kOne<<<1, 64>>>(p); kTwo<<<1, 64>>>(p); kOwn<<<1, 32>>>(p); }
