// The partner's own code under test: it turns an order of the partner's ERP into an e-way bill.
import { type EwayBillModel, PortalError, type ServiceClient, ServiceError } from 'invoicing-service-sdk';
import type { State } from 'invoicing-service-sdk/model';

/** An order as the partner's ERP holds it. */
export interface Order {
  invoiceHashId: string;
  shippedOn: string; // DD-MM-YYYY
  vehicle: string;
  warehouse: { id: number; street: string; area: string; city: string; state: State; pin: string };
  customer: { addressId: number; street: string; area: string; city: string; state: State; pin: string };
}

/** What happened to an order. */
export type ShipResult =
  | { outcome: 'generated'; message: string }
  | { outcome: 'already-generated' }
  | { outcome: 'needs-attention'; code: string; reason: string };

/** Maps an order to the service's model. */
export function toEwayBill(order: Order): EwayBillModel {
  const { warehouse: w, customer: c } = order;
  return {
    supply_type: 'Outward',
    sub_supply_type: 'Supply',
    transport_mode: 'Road',
    transporter_doc_date: order.shippedOn,
    vehicle_number: order.vehicle,
    dispatch_from: {
      addr_id: w.id,
      address_line1: w.street,
      address_line2: w.area,
      city: w.city,
      state: w.state,
      country: 'India',
      pincode: w.pin,
    },
    dispatch_to: {
      addr_id: c.addressId,
      address_line1: c.street,
      address_line2: c.area,
      city: c.city,
      state: c.state,
      country: 'India',
      pincode: c.pin,
    },
  };
}

/** Generates the order's e-way bill. A bill that already exists counts as done; other failures need a person. */
export async function shipOrder(client: ServiceClient, order: Order): Promise<ShipResult> {
  try {
    const { message } = await client.createEwayBill(order.invoiceHashId, toEwayBill(order));
    return { outcome: 'generated', message };
  } catch (error) {
    if (error instanceof PortalError && error.portalCode === 604) return { outcome: 'already-generated' };
    if (error instanceof ServiceError) return { outcome: 'needs-attention', code: error.code, reason: error.message };
    throw error;
  }
}
