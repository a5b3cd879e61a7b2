__constant__ int table[8];
__device__ int work(int x) { return x * 3 + table[1]; }
__device__ int pick(int s, int v) {
  switch (s) {
    case 0: return v * 7 + table[0];
    case 1: return v ^ 0x55;
    case 2: return v - 9 + work(v);
    case 3: return v << 3;
    case 4: return v / 5;
    case 5: return v % 11;
    default: return -v;
  }
}
