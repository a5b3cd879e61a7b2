// Kernels reaching the helpers' shared arrays in pairs (see dev.cu); kyz has
// a shared array of its own, after the furthest end of what it reaches.
__device__ float fa(float); __device__ double fb(double);
__device__ float fx(float); __device__ double fy(double); __device__ int fz(int);
__global__ void ka(float* p) { p[threadIdx.x] = fa(p[threadIdx.x]); }
__global__ void k2a(float* p) { p[threadIdx.x] = 2 * fa(p[threadIdx.x]); }
__global__ void kb(double* p) { p[threadIdx.x] = fb(p[threadIdx.x]); }
__global__ void k2b(double* p) { p[threadIdx.x] = 2 * fb(p[threadIdx.x]); }
__global__ void kx(float* p) { p[threadIdx.x] = fx(p[threadIdx.x]); }
__global__ void kxy(double* p) { p[threadIdx.x] = fx(p[threadIdx.x]) + fy(p[threadIdx.x]); }
__global__ void kyz(double* p) { __shared__ short own[8]; own[threadIdx.x & 7] = 1; __syncthreads(); p[threadIdx.x] = fy(p[threadIdx.x]) + fz(p[threadIdx.x]) + own[(threadIdx.x + 1) & 7]; }
__global__ void kz(int* p) { p[threadIdx.x] = fz(p[threadIdx.x]); }
void run(float* f, double* d, int* i) {
    ka<<<1, 32>>>(f); k2a<<<1, 32>>>(f); kb<<<1, 32>>>(d); k2b<<<1, 32>>>(d);
    kx<<<1, 32>>>(f); kxy<<<1, 32>>>(d); kyz<<<1, 32>>>(d); kz<<<1, 32>>>(i);
}
