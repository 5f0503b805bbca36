! caf_collectives.f90 - a Fortran 2018 coarray program for the interposer test (test_pmpi.c), built
! with OpenCoarrays for MPICH (caf): co_sum on REAL and DOUBLE PRECISION, co_max on DOUBLE PRECISION,
! co_min on INTEGER, each to every image (OpenCoarrays calls MPI_Allreduce for them), and co_sum to one
! image (MPI_Reduce, not an allreduce).  Values are small integers, so every result is exact.  Image 1
! prints "coarray: wrong N".
program caf_collectives
  implicit none
  integer :: i, me, n, bad
  real :: r(7)
  double precision :: d(5)
  integer :: k(3)
  me = this_image()
  n = num_images()
  bad = 0
  do i = 1, 7
    r(i) = real(me + i)
  end do
  call co_sum(r)
  do i = 1, 7
    if (r(i) /= real(n * i + n * (n + 1) / 2)) bad = bad + 1
  end do
  d = dble(me)
  call co_max(d)
  if (any(d /= dble(n))) bad = bad + 1
  k = me
  call co_min(k)
  if (any(k /= 1)) bad = bad + 1
  k = me
  call co_sum(k, result_image=1)
  if (me == 1 .and. any(k /= n * (n + 1) / 2)) bad = bad + 1
  d = 1d0
  call co_sum(d)
  if (any(d /= dble(n))) bad = bad + 1
  if (me == 1) print '(a,i0)', 'coarray: wrong ', bad
end program
