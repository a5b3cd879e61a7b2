__noinline__ __device__ int f(int x){
  switch(x){
  case 0: return x*3+1; case 1: return x^77; case 2: return x*x; case 3: return x-9;
  case 4: return x*11; case 5: return x+1234; case 6: return x>>2; case 7: return x*x*x;
  case 8: return 5; case 9: return x|0x100; default: return -1;}
}
