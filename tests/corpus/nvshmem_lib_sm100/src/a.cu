// A call to a function of another file is a CALL.ABS.NOINC whose capsule
// record ptxas wraps (0xd1); the constant reads after it are patched.
extern __device__ int lib_fence(int x, int *p);
__constant__ int a_scale[16];

__device__ __noinline__ int mid(int x, int *p)
{
    int v = lib_fence(x, p);
    return v * a_scale[9] + a_scale[3];
}

__global__ void k(int *p, int x)
{
    p[0] = mid(x, p);
}
