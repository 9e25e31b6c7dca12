# source me: Debian's Open MPI 4.1 carried under .xfer/mpi/root (never installed into /)
R=$PWD/.xfer/mpi/root
export OPAL_PREFIX=$R/usr PMIX_PREFIX=$R/usr/lib/x86_64-linux-gnu/pmix2
export PATH=$R/usr/bin:$PATH
export LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu:$R/usr/lib/x86_64-linux-gnu/openmpi/lib:$R/usr/lib/x86_64-linux-gnu/pmix2/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_osc=^ucx
export PMIX_MCA_pcompress_base_silence_warning=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
