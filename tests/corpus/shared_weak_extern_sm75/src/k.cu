// A template kernel's weak shared struct aligned to 32 (it lives in the
// object's .nv_debug.shared) beside a kernel using an extern shared array.
extern __shared__ float scratch[];
struct alignas(32) Quad { float v[8]; };
template <int N> __global__ void gather(float* x) {
  __shared__ Quad q;
  q.v[threadIdx.x % 8] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = q.v[N % 8];
}
template __global__ void gather<3>(float*);
__global__ void spill(float* x) {
  scratch[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = scratch[31 - threadIdx.x];
}
