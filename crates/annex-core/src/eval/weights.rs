//! The weights file: a compact, versioned binary format.
//!
//! All integers are little-endian.
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `ANNEXEVW` |
//! | 2 | format version ([`VERSION`]) |
//! | 2 | feature set id ([`FeatureSet`]) |
//! | 2 | number of stages |
//! | 2 | number of feature groups `G` |
//! | 4·G | canonical size of each group |
//! | 4 | number of weights `N` (= stages × sum of group sizes) |
//! | 2·N | weights, `i16` in 1/[`SCALE`](super::SCALE) disc, stage by stage, group by group |
//! | 4 | FNV-1a 32-bit checksum of everything before it |

use super::pattern::{FeatureSet, N_STAGES, STAGE_COUNTS, canon};
use std::path::{Path, PathBuf};

/// File magic.
pub const MAGIC: &[u8; 8] = b"ANNEXEVW";
/// Current format version.
pub const VERSION: u16 = 1;
/// The largest weights file read: 64 MiB, above the largest valid file
/// (the largest feature set at the most stages; a test checks it).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Trained weights in canonical (symmetry-reduced) form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    /// Which features.
    pub set: FeatureSet,
    /// Number of stages (one of [`STAGE_COUNTS`]).
    pub stages: usize,
    /// `stages × canon(set).size` weights.
    pub data: Vec<i16>,
}

/// Why a weights file could not be read or written. The messages name
/// the file where one is involved.
#[derive(Debug, thiserror::Error)]
pub enum WeightsError {
    /// The file ends before `what`.
    #[error("weights file truncated: {len} bytes, reading {what} at offset {offset}")]
    Truncated {
        /// File length.
        len: usize,
        /// The field being read.
        what: &'static str,
        /// Where it starts.
        offset: usize,
    },
    /// The magic is not `ANNEXEVW`.
    #[error("not an Annex weights file (bad magic)")]
    BadMagic,
    /// A format version this build does not read.
    #[error("weights file version {0} is not supported (this build reads version {VERSION})")]
    Version(u16),
    /// An unknown feature set id.
    #[error("weights file has unknown feature set {0}")]
    FeatureSet(u16),
    /// Another number of stages than this build's.
    #[error("weights file has {0} stages, this build reads 16, 32 or 64")]
    Stages(usize),
    /// Another number of feature groups than the feature set's.
    #[error("weights file has {got} feature groups, expected {want}")]
    Groups {
        /// In the file.
        got: usize,
        /// Of the feature set.
        want: usize,
    },
    /// A feature group of another size.
    #[error("weights file group {group} has {got} weights, expected {want}")]
    GroupSize {
        /// Which group.
        group: usize,
        /// In the file.
        got: usize,
        /// Of the feature set.
        want: usize,
    },
    /// Another number of weights.
    #[error("weights file has {got} weights, expected {want}")]
    Count {
        /// In the file.
        got: usize,
        /// Stages times the feature set's size.
        want: usize,
    },
    /// The checksum does not match.
    #[error("weights file is corrupt (checksum mismatch)")]
    Checksum,
    /// Bytes after the checksum.
    #[error("weights file has {0} unexpected trailing bytes")]
    Trailing(usize),
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file was read but is not valid weights.
    #[error("{}: {source}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// Why.
        source: Box<WeightsError>,
    },
}

fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for &b in bytes {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&[u8], WeightsError> {
        if self.b.len() - self.pos < n {
            return Err(WeightsError::Truncated {
                len: self.b.len(),
                what,
                offset: self.pos,
            });
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, WeightsError> {
        let s = self.take(2, what)?;
        Ok(u16::from_le_bytes([s[0], s[1]]))
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, WeightsError> {
        let s = self.take(4, what)?;
        Ok(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
    }
}

impl Weights {
    /// All-zero weights for a feature set ([`N_STAGES`] stages).
    pub fn zeros(set: FeatureSet) -> Weights {
        Weights::zeros_staged(set, N_STAGES)
    }

    /// All-zero weights for a feature set and a stage count (one of
    /// [`STAGE_COUNTS`]).
    pub fn zeros_staged(set: FeatureSet, stages: usize) -> Weights {
        Weights {
            set,
            stages,
            data: vec![0; stages * canon(set).size],
        }
    }

    /// Weights per stage.
    pub fn stride(&self) -> usize {
        canon(self.set).size
    }

    /// Serialises to the file format.
    pub fn to_bytes(&self) -> Vec<u8> {
        let c = canon(self.set);
        let mut out = Vec::with_capacity(32 + 2 * self.data.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.set.id().to_le_bytes());
        out.extend_from_slice(&(self.stages as u16).to_le_bytes());
        out.extend_from_slice(&(c.group_sizes.len() as u16).to_le_bytes());
        for &g in &c.group_sizes {
            out.extend_from_slice(&(g as u32).to_le_bytes());
        }
        out.extend_from_slice(&(self.data.len() as u32).to_le_bytes());
        for &w in &self.data {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let h = fnv1a(&out);
        out.extend_from_slice(&h.to_le_bytes());
        out
    }

    /// Parses the file format, checking everything a wrong file could get wrong.
    ///
    /// # Errors
    /// The first thing that is wrong with the bytes.
    pub fn from_bytes(b: &[u8]) -> Result<Weights, WeightsError> {
        let mut r = Reader { b, pos: 0 };
        if r.take(8, "magic")? != MAGIC {
            return Err(WeightsError::BadMagic);
        }
        let version = r.u16("version")?;
        if version != VERSION {
            return Err(WeightsError::Version(version));
        }
        let id = r.u16("feature set")?;
        let set = FeatureSet::from_id(id).ok_or(WeightsError::FeatureSet(id))?;
        let stages = r.u16("stages")? as usize;
        if !STAGE_COUNTS.contains(&stages) {
            return Err(WeightsError::Stages(stages));
        }
        let c = canon(set);
        let groups = r.u16("groups")? as usize;
        if groups != c.group_sizes.len() {
            return Err(WeightsError::Groups {
                got: groups,
                want: c.group_sizes.len(),
            });
        }
        for (g, &want) in c.group_sizes.iter().enumerate() {
            let got = r.u32("group size")? as usize;
            if got != want {
                return Err(WeightsError::GroupSize {
                    group: g,
                    got,
                    want,
                });
            }
        }
        let n = r.u32("weight count")? as usize;
        if n != stages * c.size {
            return Err(WeightsError::Count {
                got: n,
                want: stages * c.size,
            });
        }
        let raw = r.take(2 * n, "weights")?;
        let data = raw
            .chunks_exact(2)
            .map(|x| i16::from_le_bytes([x[0], x[1]]))
            .collect();
        let body = r.pos;
        let sum = r.u32("checksum")?;
        if sum != fnv1a(&b[..body]) {
            return Err(WeightsError::Checksum);
        }
        if r.pos != b.len() {
            return Err(WeightsError::Trailing(b.len() - r.pos));
        }
        Ok(Weights { set, stages, data })
    }

    /// Reads a weights file: the path must name a regular file of at most
    /// [`MAX_FILE_BYTES`] (a FIFO or a device is refused before it is
    /// opened, so nothing blocks or grows without bound).
    ///
    /// # Errors
    /// The file cannot be read, or is not valid weights.
    pub fn load(path: &Path) -> Result<Weights, WeightsError> {
        let b = crate::fileio::read_bounded(path, MAX_FILE_BYTES).map_err(|source| {
            WeightsError::Read {
                path: path.to_path_buf(),
                source,
            }
        })?;
        Weights::from_bytes(&b).map_err(|e| WeightsError::Invalid {
            path: path.to_path_buf(),
            source: Box::new(e),
        })
    }

    /// Writes a weights file.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, path: &Path) -> Result<(), WeightsError> {
        std::fs::write(path, self.to_bytes()).map_err(|source| WeightsError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every valid file, however many stages, fits under the read limit.
    #[test]
    fn the_largest_file_is_under_the_limit() {
        let stages = *STAGE_COUNTS.iter().max().unwrap();
        let largest = (1..=16)
            .filter_map(FeatureSet::from_id)
            .map(|set| {
                let c = canon(set);
                16 + 4 * c.group_sizes.len() + 4 + 2 * stages * c.size + 4
            })
            .max()
            .unwrap();
        assert!(largest as u64 <= MAX_FILE_BYTES, "{largest}");
    }
}
