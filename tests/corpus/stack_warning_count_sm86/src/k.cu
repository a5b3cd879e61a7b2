// k_many calls two recursive trees directly, one through `relay`, and a
// leaf; k_table calls through a table of two recursive functions and calls
// ping directly too.
__device__ int countdown(int); __device__ int ping(int); __device__ int pong(int); __device__ int triple(int);
__device__ __noinline__ int relay(int x) { return countdown(x) + 1; }
__device__ int (*table[2])(int) = {ping, pong};
__global__ void k_many(int *o) { o[0] = countdown(o[1]) + ping(2) + triple(3) + relay(4); }
__global__ void k_table(int *o) { o[0] = table[o[2] & 1](o[1]) + ping(3); }
