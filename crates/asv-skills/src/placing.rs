//! A skill tree as a change of the tree: what the tree-change layer is given to write.

use asv_fs::{Fill, NewFile};
use asv_skilltree::SkillTree;

/// The files of `tree` as a fill of the tree-change layer.
pub(crate) fn fill_of(tree: &SkillTree) -> Fill {
    Fill::files(
        tree.files()
            .iter()
            .map(|f| {
                let file = NewFile::new(f.path.clone(), f.data.clone());
                if f.executable {
                    file.executable()
                } else {
                    file
                }
            })
            .collect(),
    )
}
