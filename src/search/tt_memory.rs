//! The transposition table's memory: one zeroed allocation, aligned to
//! 2 MiB and (on Linux) marked for transparent huge pages, so that the
//! kernel can back it with 2 MiB pages. A probe of a random bucket of a
//! table of a gigabyte then rarely misses the TLB: with 4 KiB pages every
//! probe paid a page walk (Stockfish allocates its table the same way).
//! Where huge pages are off or refused, the memory is ordinary.

use std::alloc::{Layout, alloc, dealloc};
use std::ops::Deref;
use std::ptr::NonNull;

/// Size and alignment of a huge page on x86-64 Linux.
const HUGE_PAGE: usize = 2 << 20;

/// `len` values of `T` (for which all-zero bytes are a valid value, as
/// for atomics), in one allocation that is freed on drop.
pub(crate) struct ZeroedSlice<T> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
}

// Safety: the slice owns its memory like a `Box<[T]>`; sending or sharing
// it is sound whenever it is for `T` itself.
unsafe impl<T: Send> Send for ZeroedSlice<T> {}
// Safety: as above, shared access only hands out `&[T]`.
unsafe impl<T: Sync> Sync for ZeroedSlice<T> {}

impl<T> ZeroedSlice<T> {
    /// `len` zeroed values (at least one), or `None` when the size
    /// overflows or the allocator refuses the memory.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub(crate) unsafe fn new(len: usize) -> Option<ZeroedSlice<T>> {
        let len = len.max(1);
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        let align = if bytes >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            std::mem::align_of::<T>()
        };
        let layout = Layout::from_size_align(bytes, align).ok()?;
        if layout.size() == 0 {
            return None;
        }
        // Safety: the layout has a non-zero size (checked above).
        let raw = unsafe { alloc(layout) };
        let ptr = NonNull::new(raw.cast::<T>())?;
        // The advice comes before the first write: the pages are faulted
        // in (and zeroed) below, as huge pages where the kernel can.
        if align == HUGE_PAGE {
            advise_huge_pages(raw, bytes);
        }
        // Safety: `raw` is a fresh allocation of `bytes` bytes.
        unsafe { std::ptr::write_bytes(raw, 0, bytes) };
        Some(ZeroedSlice { ptr, len, layout })
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
        // Safety: allocated in `new` with exactly this layout. `T` needs
        // no drop of its own in our use (atomics), and none is run.
        unsafe { dealloc(self.ptr.as_ptr().cast(), self.layout) }
    }
}

/// Asks the kernel to back `[ptr, ptr + bytes)` with transparent huge
/// pages (Linux `madvise(MADV_HUGEPAGE)`); a refusal changes nothing.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    const MADV_HUGEPAGE: i32 = 14;
    unsafe extern "C" {
        fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
    }
    // Safety: the range is one live allocation of ours, aligned to a page;
    // the advice changes only how the kernel backs it, never its contents.
    let _ = unsafe { madvise(ptr.cast(), bytes, MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}

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
