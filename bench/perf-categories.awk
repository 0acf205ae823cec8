# perf-categories.awk: where a thread's CPU time goes, by the leaf symbol of each perf sample.
# Input: one sample per line, "TID IP SYM (DSO)" as bench/where-time-goes.sh writes it; output:
# each category's share, largest first. The categories are this project's reading of Linux 6.18's symbol
# names (mm/vma.c, mm/mprotect.c, mm/userfaultfd.c, arch/x86 signal and TLB code); a symbol
# they miss counts as "other".
/liblzma|\(\/usr\/bin\/|\(\/usr\/lib\/x86_64-linux-gnu\/lib(z|bz2|zstd)/ { c["program code"]++; n++; next }
/libfaultline|libc\.so/                                        { c["agent and libc, user mode"]++; n++; next }
/perf_iterate_sb|perf_event_mmap|perf_/                        { c["perf itself"]++; n++; next }
/anon_vma|mas_|maple|vma_|mprotect_fixup|kmem_cache|slab|kvfree|rcu|vm_area|__split|commit_merge|unlink|mt_|mab_|mast_/ \
                                                               { c["VMA split and merge"]++; n++; next }
/fpu|sigframe|signal|restore_sig|get_user|put_user/            { c["signal delivery"]++; n++; next }
/smp_call_function|flush_tlb|native_flush|tlb/                 { c["TLB shootdown"]++; n++; next }
/change_pte_range|change_protection|do_mprotect_pkey|move_pages|pte|uffd|userfault/ \
                                                               { c["PTE change, uffd move"]++; n++; next }
/finish_task_switch|schedule|switch_to|native_write_msr|try_to_wake|ttwu|enqueue|dequeue|pick_next/ \
                                                               { c["scheduler: sleep, wake, switch"]++; n++; next }
/exc_page_fault|do_user_addr_fault|bad_area|handle_mm_fault|lock_vma/ \
                                                               { c["page fault entry"]++; n++; next }
/_raw_spin_unlock_irqrestore|_raw_spin_unlock_irq|do_syscall_64|entry_SYSCALL|syscall|_raw_spin_lock/ \
                                                               { c["syscall entry/exit, irq on"]++; n++; next }
                                                               { c["other"]++; n++ }
END {
  for (k in c) printf "  %5.1f%%  %s\n", 100 * c[k] / n, k | "sort -rn"
  close("sort -rn")
  printf "  of %d samples\n", n
}
