// Dynamic parallelism: parent launches child from the device; needs
// libcudadevrt (__cudaCDP2GetParameterBufferV2 / __cudaCDP2LaunchDeviceV2).
__global__ void child(int *out, int v)
{
  out[threadIdx.x] = v + threadIdx.x;
}

__global__ void parent(int *out, int v)
{
  if (threadIdx.x == 0) {
    child<<<1, 32>>>(out, v * 2);
  }
}
