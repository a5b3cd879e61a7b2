// A template kernel whose shared struct is aligned to 32: its weak
// variables live in the object's .nv_debug.shared.
struct alignas(32) Block { float v[8]; };
template <int N> __global__ void blocked(float* o) {
  __shared__ Block b;
  __shared__ float row[N];
  row[threadIdx.x % N] = o[threadIdx.x];
  if (threadIdx.x == 0) b.v[0] = 1.f;
  __syncthreads();
  o[threadIdx.x] = row[(threadIdx.x + 1) % N] + b.v[0];
}
template __global__ void blocked<32>(float*);
