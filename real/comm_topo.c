/*
 * comm_topo.c - what the executor reads of a communicator before it sets up on it (see libmring.h):
 * its rank grid from the node layout (ranks per node from MPI_Comm_split_type(MPI_COMM_TYPE_SHARED),
 * the grid from mring_topo_from_nodes), and whether every rank arrived, within a deadline.  PMPI_ calls
 * throughout, so that under the interposer none of them comes back into it.
 */
#include "libmring.h"

#include <sched.h>
#include <stdio.h>

int mring_comm_arrive(MPI_Comm comm, double timeout_s, char *err, size_t errlen)
{
    MPI_Request q;
    int done = 0, rc = PMPI_Ibarrier(comm, &q);
    double t0 = PMPI_Wtime();
    while (rc == MPI_SUCCESS && !done) {
        rc = PMPI_Test(&q, &done, MPI_STATUS_IGNORE);
        if (!done && PMPI_Wtime() - t0 > timeout_s) {
            snprintf(err, errlen, "not every rank arrived within %g s (a peer stopped, or is late)", timeout_s);
            return MPI_ERR_OTHER;
        }
        if (!done)
            sched_yield();
    }
    if (rc != MPI_SUCCESS)
        snprintf(err, errlen, "MPI_Ibarrier failed");
    return rc;
}

int mring_comm_topo(MPI_Comm comm, mring_topo_t *t, char *err, size_t errlen)
{
    MPI_Comm node;
    int P, r, R, lr, leader, rc, v[3], m[3];
    if ((rc = PMPI_Comm_size(comm, &P)) || (rc = PMPI_Comm_rank(comm, &r)))
        return rc;
    if ((rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node))) {
        snprintf(err, errlen, "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) failed");
        return rc;
    }
    PMPI_Comm_size(node, &R);
    PMPI_Comm_rank(node, &lr);
    leader = r; /* the node's first rank (its rank 0 keeps the original order: key 0) */
    rc = PMPI_Bcast(&leader, 1, MPI_INT, 0, node);
    PMPI_Comm_free(&node);
    /* regular: every node holds R ranks, and this node's are leader .. leader + R - 1 with leader a multiple of R */
    v[0] = R, v[1] = -R, v[2] = r == leader + lr && leader % R == 0;
    if (rc || (rc = PMPI_Allreduce(v, m, 3, MPI_INT, MPI_MIN, comm))) {
        snprintf(err, errlen, "reading the node layout failed");
        return rc;
    }
    *t = mring_topo_from_nodes(P, R, m[0] == -m[1] && m[2] == 1);
    return MPI_SUCCESS;
}
