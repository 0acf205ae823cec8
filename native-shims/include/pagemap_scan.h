/*
 * pagemap_scan.h: the kernel's asynchronous write-protect (UFFD_FEATURE_WP_ASYNC, Linux 6.7,
 * include/uapi/linux/userfaultfd.h) and PAGEMAP_SCAN (Linux 6.7, include/uapi/linux/fs.h) for a
 * system whose headers predate them. The values are the kernel's uapi; the kernel's UFFDIO_API
 * answer says whether the features exist. One copy for the agent (pagemap.c, engine_uffd.c) and
 * the bench probes (bench/native), which include it after <linux/userfaultfd.h>.
 */
#ifndef FAULTLINE_PAGEMAP_SCAN_H
#define FAULTLINE_PAGEMAP_SCAN_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/userfaultfd.h>

#ifndef UFFD_FEATURE_WP_UNPOPULATED
#define UFFD_FEATURE_WP_UNPOPULATED (1 << 13)
#endif
#ifndef UFFD_FEATURE_WP_ASYNC
#define UFFD_FEATURE_WP_ASYNC (1 << 15)
#endif

#ifndef PAGEMAP_SCAN
#define PAGE_IS_WPALLOWED  (1 << 0)
#define PAGE_IS_WRITTEN    (1 << 1)
#define PAGE_IS_FILE       (1 << 2)
#define PAGE_IS_PRESENT    (1 << 3)
#define PAGE_IS_SWAPPED    (1 << 4)
#define PAGE_IS_PFNZERO    (1 << 5)
#define PAGE_IS_HUGE       (1 << 6)
#define PAGE_IS_SOFT_DIRTY (1 << 7)

struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

#define PM_SCAN_WP_MATCHING   (1 << 0) /* write-protect the pages matched */
#define PM_SCAN_CHECK_WPASYNC (1 << 1) /* fail (EPERM) on a vma without asynchronous write-protect */

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#endif

#endif
