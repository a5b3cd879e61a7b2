// Kernel calling device functions and a device variable defined in lib.cu.
extern __device__ int scale(int x);
extern __device__ float blend(float a, float b);
extern __device__ int g_offset;

__global__ void k_scale(int *out, const float *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = scale(i) + g_offset + (int)blend(in[i], in[n - 1 - i]);
  }
}
