"""Body references: a field that takes a resource's ID and resolves it to the object, within
the key's visibility (an ID it may not see is 404 `resource_missing`, as a missing one)."""

from jobcost.api.fields import RefField
from jobcost.resources import RESOURCES


def ref(object_name: str, **kwargs) -> RefField:
    """A reference to a `object_name` resource (`ref("invoice")`): the table entry
    (`jobcost.resources`) gives its ID prefix, model and path to its project; `kwargs` go to
    the field (`required`, `allow_null`, …)."""
    entry = RESOURCES[object_name]
    model, project_field = entry.model, entry.project_field

    def resolve(view, pk):
        return view.scope.filter(model.objects.all(), project_field).filter(pk=pk).first()

    def resolve_many(view, pks):
        visible = view.scope.filter(model.objects.all(), project_field).filter(pk__in=pks)
        return {obj.pk: obj for obj in visible}

    return RefField(prefix=entry.prefix, resolver=resolve, resolve_many=resolve_many, **kwargs)
