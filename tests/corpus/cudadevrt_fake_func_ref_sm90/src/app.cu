// Calls sysf(): the system library's member is linked, and then counts as
// any host object (its kernel kSys is dropped, kSysStatic is kept).
extern __device__ int sysf(int x);
__global__ void kApp(int *p) { p[0] = sysf(p[1]); }
void runApp(int *p) { kApp<<<1, 1>>>(p); }
