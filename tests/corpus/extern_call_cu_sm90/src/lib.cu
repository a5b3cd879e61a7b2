// Device-side library: non-inline device functions and a device variable.
__device__ int g_offset = 17;

__device__ __noinline__ int scale(int x)
{
  return x * 3 + g_offset;
}

__device__ __noinline__ float blend(float a, float b)
{
  return 0.25f * a + 0.75f * b;
}
