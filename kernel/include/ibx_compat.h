/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ibx_compat.h - the one place where the differences between the kernels
 * this tree builds for (Debian's 6.1 and 6.12) are bridged.
 */
#ifndef IBX_COMPAT_H
#define IBX_COMPAT_H

#include <linux/version.h>
#include <linux/device.h>
#include <linux/mm.h>

/* class_create() lost its owner argument in 6.4. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define ibx_class_create(name) class_create(THIS_MODULE, name)
#else
#define ibx_class_create(name) class_create(name)
#endif

/* A statically defined class names its module until 6.4. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
#define IBX_CLASS_OWNER .owner = THIS_MODULE,
#else
#define IBX_CLASS_OWNER
#endif

/* class devnode/dev_uevent/namespace callbacks take a const device since 6.2. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define IBX_CLASS_DEV_CONST
#else
#define IBX_CLASS_DEV_CONST const
#endif

/* vma->vm_flags became read-only; vm_flags_set() exists since 6.3. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
static inline void ibx_vm_flags_set(struct vm_area_struct *vma,
				    unsigned long flags)
{
	vma->vm_flags |= flags;
}

static inline void ibx_vm_flags_clear(struct vm_area_struct *vma,
				      unsigned long flags)
{
	vma->vm_flags &= ~flags;
}
#else
#define ibx_vm_flags_set vm_flags_set
#define ibx_vm_flags_clear vm_flags_clear
#endif

/* <asm/unaligned.h> moved to <linux/unaligned.h> in 6.12. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#include <asm/unaligned.h>
#else
#include <linux/unaligned.h>
#endif

/* no_llseek is gone in 6.12 (NULL llseek means the same there). */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define IBX_NO_LLSEEK no_llseek
#else
#define IBX_NO_LLSEEK NULL
#endif

/* struct fd is read through fd_file() since 6.12. */
#include <linux/file.h>
#ifndef fd_file
#define fd_file(f) ((f).file)
#endif

/* sysctl tables end with an empty entry before 6.11, by their size after. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define IBX_SYSCTL_END {}
#else
#define IBX_SYSCTL_END
#endif

#endif /* IBX_COMPAT_H */
