// Kernels reaching the helpers' arrays (see d.cu); kD's own array goes right
// after d (0x40), under c.
__device__ double fB(double); __device__ float fC(float); __device__ int fD(int); __device__ int fS(int);
__global__ void kB(double* p) { p[threadIdx.x] = fB(p[threadIdx.x]); }
__global__ void kBC(double* p) { p[threadIdx.x] = fB(p[threadIdx.x]) + fC(p[threadIdx.x]); }
__global__ void kCD(float* p) { p[threadIdx.x] = fC(p[threadIdx.x]) + fD(p[threadIdx.x]); }
__global__ void kD(int* p) { __shared__ int own[8]; own[threadIdx.x & 7] = fD(p[threadIdx.x]); __syncthreads(); p[threadIdx.x] = own[(threadIdx.x + 3) & 7]; }
__global__ void kCs(float* p) { __shared__ short mine[4]; mine[threadIdx.x & 3] = 1; __syncthreads(); p[threadIdx.x] = fC(p[threadIdx.x]) + fS(p[threadIdx.x]) + mine[(threadIdx.x + 1) & 3]; }
void run(double* d, float* f, int* i) { kB<<<1, 32>>>(d); kBC<<<1, 32>>>(d); kCD<<<1, 32>>>(f); kD<<<1, 32>>>(i); kCs<<<1, 32>>>(f); }
