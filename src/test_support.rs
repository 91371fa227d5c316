//! What the unit tests of several modules share.

/// A reader that gives at most three bytes a read, so that whatever reads it meets the edges
/// of its reads everywhere.
pub(crate) struct Trickle<'a>(pub &'a [u8]);

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.0.len().min(buf.len()).min(3);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}
