// Texture kernels that call nothing else: no call in the whole link.
__global__ void fetch(cudaTextureObject_t tex, float* out, int w) {
  int x = threadIdx.x;
  int y = blockIdx.x;
  out[y * w + x] = tex2D<float>(tex, x, y) + tex2D<float>(tex, x + 1, y);
}
__global__ void fetch3(cudaTextureObject_t tex, float* out) {
  out[threadIdx.x] = tex3D<float>(tex, threadIdx.x, 0, 0);
}
