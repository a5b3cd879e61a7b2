// Texture and surface objects on sm_107: the finalizer lowers them to
// calls of __cuda_syscall_bw_do_* that only the classic side has.
// `scale` divides (a call of the division slow path), `store` only writes
// a surface.
__global__ void scale(cudaTextureObject_t tex, float* out, int w, float s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  float v = tex2D<float>(tex, x + 0.5f, y + 0.5f);
  out[y * w + x] = v / s;
}
__global__ void store(cudaSurfaceObject_t surf, const float* in, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  surf2Dwrite(in[y * w + x], surf, x * 4, y);
}
