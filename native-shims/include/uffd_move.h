/*
 * uffd_move.h: the kernel's UFFDIO_MOVE interface (Linux 6.8, include/uapi/linux/userfaultfd.h)
 * for a system <linux/userfaultfd.h> that predates it. The values are the kernel's uapi; the
 * kernel's UFFDIO_API answer says whether the feature really exists. One copy for the agent
 * (engine_uffd.h) and the bench probes (bench/native), which include it after
 * <linux/userfaultfd.h>.
 */
#ifndef FAULTLINE_UFFD_MOVE_H
#define FAULTLINE_UFFD_MOVE_H

#include <linux/userfaultfd.h>

#ifndef UFFD_FEATURE_MOVE
#define UFFD_FEATURE_MOVE (1 << 16)
#endif
#ifndef _UFFDIO_MOVE
#define _UFFDIO_MOVE (0x05)
struct uffdio_move {
	__u64 dst;
	__u64 src;
	__u64 len;
#define UFFDIO_MOVE_MODE_DONTWAKE ((__u64)1 << 0)
#define UFFDIO_MOVE_MODE_ALLOW_SRC_HOLES ((__u64)1 << 1)
	__u64 mode;
	__s64 move;
};
#define UFFDIO_MOVE _IOWR(UFFDIO, _UFFDIO_MOVE, struct uffdio_move)
#endif
#ifndef USERFAULTFD_IOC_NEW
#define USERFAULTFD_IOC 0xAA
#define USERFAULTFD_IOC_NEW _IO(USERFAULTFD_IOC, 0x00)
#endif

#endif
