// k_both calls g (prints) and h (takes a kernel's address): every name it
// listed is defined elsewhere, and a kernel comes into its list, so its
// EIATTR_EXTERNS is rewritten where it was, in the order the inputs were
// read. k_print calls only g: its record goes and a new one ends the table.
extern __device__ int g(int);
extern __device__ int h(int);
__global__ void k_both(int *p) { p[0] = g(p[1]) + h(p[2]); }
__global__ void k_print(int *p) { p[0] = g(p[1]); }
