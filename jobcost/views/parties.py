"""/v1/owners and /v1/vendors."""

from jobcost.api.viewsets import JobcostViewSet
from jobcost.filters import OwnerFilter, VendorFilter
from jobcost.serializers.parties import (
    OwnerCreateSerializer,
    OwnerSerializer,
    OwnerUpdateSerializer,
    VendorCreateSerializer,
    VendorSerializer,
    VendorUpdateSerializer,
)
from jobcost.services import parties
from jobcost.views.audit import AuditTrailMixin
from jobcost.views.docs import create_doc, list_doc, retrieve_doc, update_doc


class OwnerViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = OwnerSerializer
    filterset_class = OwnerFilter

    @list_doc(OwnerSerializer, "List owners")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(OwnerSerializer, "Retrieve an owner")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(OwnerCreateSerializer, OwnerSerializer, "Create an owner")
    def create(self, request, *args, **kwargs):
        data = self.parse(OwnerCreateSerializer)
        owner = parties.owner_create(account_id=self.scope.account_id, **data)
        return self.render(owner, status=201)

    @update_doc(OwnerUpdateSerializer, OwnerSerializer, "Update an owner")
    def partial_update(self, request, *args, **kwargs):
        owner_id = self.visible_id()
        data = self.parse(OwnerUpdateSerializer)
        return self.render(parties.owner_update(owner_id=owner_id, changes=data))


class VendorViewSet(AuditTrailMixin, JobcostViewSet):
    serializer_class = VendorSerializer
    filterset_class = VendorFilter

    @list_doc(VendorSerializer, "List vendors")
    def list(self, request, *args, **kwargs):
        return super().list(request)

    @retrieve_doc(VendorSerializer, "Retrieve a vendor")
    def retrieve(self, request, *args, **kwargs):
        return super().retrieve(request)

    @create_doc(VendorCreateSerializer, VendorSerializer, "Create a vendor")
    def create(self, request, *args, **kwargs):
        data = self.parse(VendorCreateSerializer)
        vendor = parties.vendor_create(account_id=self.scope.account_id, **data)
        return self.render(vendor, status=201)

    @update_doc(VendorUpdateSerializer, VendorSerializer, "Update a vendor")
    def partial_update(self, request, *args, **kwargs):
        vendor_id = self.visible_id()
        data = self.parse(VendorUpdateSerializer)
        return self.render(parties.vendor_update(vendor_id=vendor_id, changes=data))
