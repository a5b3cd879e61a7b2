// Extern shared arrays aligned to more than 16 bytes.
extern __shared__ __align__(32) float tile[];
__shared__ int counters[5];
__device__ __noinline__ void store(int i, float v) { tile[i] = v; counters[i % 5] += 1; }
__device__ __noinline__ float twice(float v) { return 2.0f * v; }
// No static shared memory: its section grows to the arrays' shared offset.
__global__ void fill(float *out) { store(threadIdx.x, 1.0f); __syncthreads(); out[threadIdx.x] = tile[threadIdx.x ^ 1]; }
// Static shared memory of its own, joined to fill through store.
__global__ void mix(float *out) {
  __shared__ float own[3];
  own[threadIdx.x % 3] = out[0];
  store(threadIdx.x, own[0]);
  out[1] = tile[0];
}
// Its only shared memory is a 64-aligned array at offset 0.
__global__ void lone(float *out) {
  extern __shared__ __align__(64) float wide[];
  wide[threadIdx.x] = twice(out[threadIdx.x]);
  __syncthreads();
  out[threadIdx.x] = wide[threadIdx.x ^ 1];
}
