"""Server-side apply and field ownership, as structured-merge-diff and apimachinery's managedfields
package keep them: `paths` (path elements and the `FieldsV1` encoding), `shape` (how each list of a kind
merges: by keys, as a set, or whole), `fieldset` (an object's fields, the changes between two objects),
`merge` (the applied configuration merged into the live object; removing fields), `managers` (the
`managedFields` entries: an Update's bookkeeping, an Apply with its conflicts)."""
