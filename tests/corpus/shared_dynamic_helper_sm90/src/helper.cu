// Kernels sharing __noinline__ helpers that use dynamic shared memory: the
// helper's code has one address for the extern arrays, so nvlink raises
// every kernel reaching it to the largest static shared size among them.
extern __shared__ int dyn[];
extern __shared__ float dyn_f[];

__device__ __noinline__ void use_dyn(int* p) { dyn[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[0] = dyn[p[1]]; }
__device__ __noinline__ void via(int* p) { use_dyn(p + 1); }
__device__ __noinline__ void use_f(float* p) { dyn_f[threadIdx.x] = p[threadIdx.x]; __syncthreads(); p[0] = dyn_f[threadIdx.x ^ 1]; }
__device__ __noinline__ void use_dyn2(int* p) { dyn[threadIdx.x] = 2; __syncthreads(); p[1] = dyn[p[2]]; }
__device__ __noinline__ void zero_only(int* p) { dyn[threadIdx.x] = 3; __syncthreads(); p[0] = dyn[p[3]]; }

// One group: 0x20, 0 and 0x64 bytes (the last through via) all get 0x70.
__global__ void with_static(int* p) { __shared__ int s[8]; s[threadIdx.x & 7] = 1; __syncthreads(); p[2] = s[p[3] & 7]; use_dyn(p); }
__global__ void no_static(int* p) { use_dyn(p); }
__global__ void through_via(int* p) { __shared__ int t[25]; t[threadIdx.x % 25] = 1; __syncthreads(); p[4] = t[p[5] % 25]; via(p); }
// Another, joined through bridge (use_f and use_dyn2): 0x80, 0, 0x10.
__global__ void float_big(float* p) { __shared__ float u[32]; u[threadIdx.x & 31] = 1.f; __syncthreads(); p[2] = u[(threadIdx.x + 1) & 31]; use_f(p); }
__global__ void bridge(int* p) { use_f((float*)p); use_dyn2(p); }
__global__ void small(int* p) { __shared__ int w[4]; w[threadIdx.x & 3] = 1; __syncthreads(); p[6] = w[p[7] & 3]; use_dyn2(p); }
// Its own use of an array joins nothing: stays at its 0x10.
__global__ void direct_only(int* p) { __shared__ int v[4]; v[threadIdx.x & 3] = p[0]; dyn[threadIdx.x] = 4; __syncthreads(); p[1] = v[p[2] & 3] + dyn[p[3]]; }
// Two kernels without static shared memory share zero_only: 0.
__global__ void zero_a(int* p) { zero_only(p); }
__global__ void zero_b(int* p) { zero_only(p + 8); }
