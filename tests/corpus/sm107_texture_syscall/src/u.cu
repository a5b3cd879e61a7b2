// A second object: a texture kernel that calls nothing else.
__global__ void fetch(cudaTextureObject_t tex, float* out, int w) {
  int x = threadIdx.x;
  int y = blockIdx.x;
  out[y * w + x] = tex2D<float>(tex, x, y) + tex2D<float>(tex, x + 1, y);
}
