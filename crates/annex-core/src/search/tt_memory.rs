//! The transposition table's memory: one zeroed allocation, aligned to
//! 2 MiB and (on Linux) marked for transparent huge pages, so that the
//! kernel can back it with 2 MiB pages. A probe of a random bucket of a
//! table of a gigabyte then rarely misses the TLB: with 4 KiB pages every
//! probe paid a page walk (Stockfish allocates its table the same way).
//! Where huge pages are off or refused, the memory is ordinary.
//!
//! On Linux a large slice is a fresh anonymous mapping, which the kernel
//! hands out zeroed page by page at the first write: nothing is zeroed
//! here, and the caller faults the pages in (in parallel, see
//! `Table::fault_in`) so that each is zeroed once, by the kernel. Writing
//! zeros over the fresh memory instead had every byte zeroed twice, on one
//! thread: 3.48 s for 16 GiB on a 16-core machine, against 0.30 s for the
//! kernel's zeroing alone faulted in on 16 threads (2.66 s on one).

use std::alloc::{Layout, alloc_zeroed, dealloc};
use std::ops::Deref;
use std::ptr::NonNull;

/// Size and alignment of a huge page on x86-64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// How a slice's memory was obtained, to give it back the same way.
enum Backing {
    /// `alloc_zeroed` with this layout.
    Heap(Layout),
    /// An anonymous mapping starting at `base`, of `len` bytes.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Mapped { base: *mut u8, len: usize },
}

/// `len` values of `T` (for which all-zero bytes are a valid value, as
/// for atomics), in one allocation that is freed on drop.
pub(crate) struct ZeroedSlice<T> {
    ptr: NonNull<T>,
    len: usize,
    backing: Backing,
}

// Safety: the slice owns its memory like a `Box<[T]>`; sending or sharing
// it is sound whenever it is for `T` itself.
unsafe impl<T: Send> Send for ZeroedSlice<T> {}
// Safety: as above, shared access only hands out `&[T]`.
unsafe impl<T: Sync> Sync for ZeroedSlice<T> {}

impl<T> ZeroedSlice<T> {
    /// `len` zeroed values (at least one), or `None` when the size
    /// overflows or the system refuses the memory. A slice of 2 MiB or
    /// more is, on Linux, a fresh mapping whose pages are not yet touched
    /// (they read as zeros and are zeroed by the kernel at the first write).
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub(crate) unsafe fn new(len: usize) -> Option<ZeroedSlice<T>> {
        let len = len.max(1);
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        if bytes == 0 {
            return None;
        }
        if bytes >= HUGE_PAGE
            && let Some((base, map_len, ptr)) = map_huge(bytes)
        {
            return Some(ZeroedSlice {
                ptr: NonNull::new(ptr.cast::<T>())?,
                len,
                backing: Backing::Mapped { base, len: map_len },
            });
        }
        let align = if bytes >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<T>()
        };
        let layout = Layout::from_size_align(bytes, align).ok()?;
        // Safety: the layout has a non-zero size (checked above).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw.cast::<T>())?;
        Some(ZeroedSlice {
            ptr,
            len,
            backing: Backing::Heap(layout),
        })
    }
}

impl<T> Deref for ZeroedSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // Safety: `ptr` points to `len` initialised (zeroed, valid by the
        // contract of `new`) values that live as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        match self.backing {
            // Safety: allocated in `new` with exactly this layout. `T` needs
            // no drop of its own in our use (atomics), and none is run.
            Backing::Heap(layout) => unsafe { dealloc(self.ptr.as_ptr().cast(), layout) },
            Backing::Mapped { base, len } => unmap(base, len),
        }
    }
}

#[cfg(target_os = "linux")]
mod sys {
    pub(super) const PROT_READ: i32 = 1;
    pub(super) const PROT_WRITE: i32 = 2;
    pub(super) const MAP_PRIVATE: i32 = 2;
    pub(super) const MAP_ANONYMOUS: i32 = 0x20;
    pub(super) const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        pub(super) fn mmap(
            addr: *mut std::ffi::c_void,
            len: usize,
            prot: i32,
            flags: i32,
            fd: i32,
            offset: i64,
        ) -> *mut std::ffi::c_void;
        pub(super) fn munmap(addr: *mut std::ffi::c_void, len: usize) -> i32;
        pub(super) fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
}

/// A fresh anonymous mapping with `bytes` bytes at a 2 MiB boundary,
/// advised for transparent huge pages: (mapping start, mapping length,
/// aligned start), or `None` when the system refuses it.
#[cfg(target_os = "linux")]
fn map_huge(bytes: usize) -> Option<(*mut u8, usize, *mut u8)> {
    let len = bytes.checked_add(HUGE_PAGE)?;
    // Safety: an anonymous private mapping at an address of the kernel's
    // choice aliases nothing; the result is checked before use.
    let base = unsafe {
        sys::mmap(
            std::ptr::null_mut(),
            len,
            sys::PROT_READ | sys::PROT_WRITE,
            sys::MAP_PRIVATE | sys::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if base.is_null() || base as isize == -1 {
        return None;
    }
    let base = base.cast::<u8>();
    let skip = (HUGE_PAGE - base as usize % HUGE_PAGE) % HUGE_PAGE;
    // Safety: `skip < HUGE_PAGE`, so the aligned start and `bytes` after
    // it lie inside the mapping of `bytes + HUGE_PAGE` bytes.
    let ptr = unsafe { base.add(skip) };
    // Safety: the range is inside our mapping; the advice changes only how
    // the kernel backs it, never its contents. A refusal changes nothing.
    let _ = unsafe { sys::madvise(ptr.cast(), bytes, sys::MADV_HUGEPAGE) };
    Some((base, len, ptr))
}

#[cfg(not(target_os = "linux"))]
fn map_huge(_bytes: usize) -> Option<(*mut u8, usize, *mut u8)> {
    None
}

/// Gives back a mapping of [`map_huge`].
#[cfg(target_os = "linux")]
fn unmap(base: *mut u8, len: usize) {
    // Safety: `base` and `len` are exactly one mapping of `map_huge`,
    // unmapped once, when its only owner drops.
    let _ = unsafe { sys::munmap(base.cast(), len) };
}

#[cfg(not(target_os = "linux"))]
fn unmap(_base: *mut u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

    #[test]
    fn zeroed_large_and_small() {
        for len in [1usize, 3, (4 << 20) / 8 + 5] {
            // Safety: all-zero bytes are a valid AtomicU64.
            let s = unsafe { ZeroedSlice::<AtomicU64>::new(len) }.unwrap();
            assert_eq!(s.len(), len);
            assert!(s.iter().all(|a| a.load(Relaxed) == 0));
            s[len - 1].store(7, Relaxed);
            assert_eq!(s[len - 1].load(Relaxed), 7);
        }
    }

    #[test]
    fn absurd_size_is_refused() {
        // Safety: as above.
        assert!(unsafe { ZeroedSlice::<AtomicU64>::new(usize::MAX / 4) }.is_none());
    }
}
