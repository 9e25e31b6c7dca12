#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdint.h>
extern char **environ;
static double now(void){struct timespec t; clock_gettime(CLOCK_MONOTONIC,&t); return t.tv_sec*1e3+t.tv_nsec/1e6;}
int main(int argc,char**argv){
  if(argc>3&&!strcmp(argv[1],"gen")){ long n=atol(argv[3]); FILE*f=fopen(argv[2],"wb");
    char h[128]; int l=snprintf(h,sizeof h,"{'descr': '<f4', 'fortran_order': False, 'shape': (%ld, %ld), }",n,n);
    int tot=10+l+1; int pad=(64-tot%64)%64; fwrite("\x93NUMPY\x01\x00",1,8,f); uint16_t hl=l+pad+1; fwrite(&hl,2,1,f);
    fwrite(h,1,l,f); for(int i=0;i<pad;i++)fputc(' ',f); fputc('\n',f);
    uint64_t s=88172645463325252ull; float*row=malloc(4*n); for(long i=0;i<n;i++){for(long j=0;j<n;j++){s^=s<<13;s^=s>>7;s^=s<<17;row[j]=(float)((s>>40)/16777216.0*2-1);} fwrite(row,4,n,f);} fclose(f); return 0;}
  int reps=atoi(argv[1]);
  for(int r=0;r<reps;r++){
    pid_t pid; posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa,1,"/dev/null",O_WRONLY,0);
    double t0=now(); if(posix_spawnp(&pid,argv[2],&fa,NULL,argv+2,environ)){perror("spawn");return 1;}
    int st; waitpid(pid,&st,0); double t1=now();
    fprintf(stderr,"spawn t0 %.3f end %.3f wall %.3f status %d\n",t0,t1,t1-t0,st);
  }
  return 0;
}
