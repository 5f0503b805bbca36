/* mpi_types.c - the MPI datatype and op of each mring type and op (see libmring.h). */
#include "libmring.h"

MPI_Datatype mring_mpi_datatype(mring_dtype_t t)
{
    switch (t) {
    case MRING_FLOAT32: return MPI_FLOAT;
    case MRING_FLOAT64: return MPI_DOUBLE;
    case MRING_INT32: return MPI_INT32_T;
    case MRING_INT64: return MPI_INT64_T;
    case MRING_INT8: return MPI_INT8_T;
    case MRING_UINT8: return MPI_UINT8_T;
    case MRING_INT16: return MPI_INT16_T;
    case MRING_UINT16: return MPI_UINT16_T;
    case MRING_UINT32: return MPI_UINT32_T;
    case MRING_UINT64: return MPI_UINT64_T;
    case MRING_BOOL: return MPI_C_BOOL;
    case MRING_COMPLEX64: return MPI_C_FLOAT_COMPLEX;
    case MRING_COMPLEX128: return MPI_C_DOUBLE_COMPLEX;
    case MRING_LONGDOUBLE: return MPI_LONG_DOUBLE;
    case MRING_FLOAT_INT: return MPI_FLOAT_INT;
    case MRING_DOUBLE_INT: return MPI_DOUBLE_INT;
    case MRING_LONG_INT: return MPI_LONG_INT;
    case MRING_2INT: return MPI_2INT;
    case MRING_SHORT_INT: return MPI_SHORT_INT;
    case MRING_LONGDOUBLE_INT: return MPI_LONG_DOUBLE_INT;
    case MRING_2FLOAT: return MPI_2REAL;
    case MRING_2DOUBLE: return MPI_2DOUBLE_PRECISION;
    default: return MPI_DATATYPE_NULL; /* float16, bfloat16 */
    }
}

MPI_Op mring_mpi_op(mring_redop_t op)
{
    static const MPI_Op ops[MRING_NOPS] = {
        [MRING_SUM] = MPI_SUM,   [MRING_PROD] = MPI_PROD, [MRING_MIN] = MPI_MIN,       [MRING_MAX] = MPI_MAX,
        [MRING_AVG] = MPI_SUM,   [MRING_LAND] = MPI_LAND, [MRING_LOR] = MPI_LOR,       [MRING_LXOR] = MPI_LXOR,
        [MRING_BAND] = MPI_BAND, [MRING_BOR] = MPI_BOR,   [MRING_BXOR] = MPI_BXOR,     [MRING_MAXLOC] = MPI_MAXLOC,
        [MRING_MINLOC] = MPI_MINLOC};
    return op < MRING_NOPS ? ops[op] : MPI_OP_NULL;
}
