// Functions whose call trees recurse (countdown on itself; ping and pong on
// each other), and one that does not.
__device__ int pong(int n);
__device__ __noinline__ int countdown(int d) { volatile int pad[16]; pad[d & 15] = d; return d <= 0 ? pad[0] : countdown(d - 1) + pad[3]; }
__device__ __noinline__ int ping(int n) { volatile int pad[16]; pad[n & 15] = n; return n == 0 ? pad[1] : pong(n - 1) + pad[2]; }
__device__ __noinline__ int pong(int n) { volatile int pad[8]; pad[n & 7] = n; return n == 0 ? pad[1] : ping(n - 1) - pad[2]; }
__device__ __noinline__ int triple(int n) { return n * 3; }
