// -G code whose uses of two extern variables fold away on sm_120: only
// the debug information still names them, and nobody defines them.
extern __device__ const int weights[16];
extern __constant__ int offsets[16];
__global__ void scale(int* out, int n) {
  out[threadIdx.x] = n + weights[n & 15] * 0 + (offsets[n & 7] & 0);
}
