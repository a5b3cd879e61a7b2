// The host launches `parent` only; `parent` launches `child` (child.cu)
// from the device.
__global__ void child(float* p, int n);
__global__ void parent(float* p, int n)
{
    if (threadIdx.x == 0) child<<<1, 32>>>(p, n);
}
void run(float* p, int n) { parent<<<1, 1>>>(p, n); }
