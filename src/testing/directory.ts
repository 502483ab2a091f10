import { generateApiKey } from './api-key.js';
import type { MockApiKeyOptions, MockCompanyOptions, MockDocument, MockEwayBill } from './types.js';

/** What the mock knows about one API key. The key itself is only the map's key. */
export interface KeyRecord {
  readonly keyId: string;
  readonly companyId: string;
  readonly canCreateEwayBill: boolean;
}

interface CompanyRecord {
  readonly id: string;
  portalConnected: boolean;
  readonly documents: Map<string, { ewayBill: MockEwayBill | undefined }>;
}

function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
}

/** The companies, API keys and documents of the mock. */
export class Directory {
  readonly #companies = new Map<string, CompanyRecord>();
  readonly #keys = new Map<string, KeyRecord>();
  #keyCount = 0;
  #companyCount = 0;

  /** Adds a company. @throws {TypeError} when the id is taken. */
  addCompany(options: MockCompanyOptions = {}): string {
    let id = options.id;
    while (id === undefined || (options.id === undefined && this.#companies.has(id)))
      id = `company_${++this.#companyCount}`;
    if (typeof id !== 'string' || id === '') throw new TypeError('addCompany: id must be a non-empty string');
    if (this.#companies.has(id)) throw new TypeError(`addCompany: a company with id '${id}' already exists`);
    this.#companies.set(id, { id, portalConnected: options.portalConnected ?? true, documents: new Map() });
    return id;
  }

  /** Adds a key to a company and returns it. @throws {TypeError} when the company is unknown. */
  addApiKey(options: MockApiKeyOptions & { companyId: string }, key?: string): string {
    this.#company(options.companyId, 'addApiKey');
    const keyId = `key_${++this.#keyCount}`;
    const value = key ?? generateApiKey(keyId, options.companyId);
    this.#keys.set(value, {
      keyId,
      companyId: options.companyId,
      canCreateEwayBill: options.canCreateEwayBill ?? true,
    });
    return value;
  }

  /** Makes a key unknown, as regenerating it in the dashboard does. Returns whether it existed. */
  revokeApiKey(key: string): boolean {
    return this.#keys.delete(key);
  }

  /** The record of a key, or `undefined` for an unknown one. */
  keyRecord(key: string): KeyRecord | undefined {
    return this.#keys.get(key);
  }

  /** Adds a document and returns its hash id. @throws {TypeError} when the hash id is taken or the company unknown. */
  addDocument(companyId: string, hashId?: string): string {
    const company = this.#company(companyId, 'addDocument');
    const id = hashId ?? randomId('doc');
    if (typeof id !== 'string' || id === '') throw new TypeError('addDocument: hashId must be a non-empty string');
    for (const other of this.#companies.values()) {
      if (other.documents.has(id)) throw new TypeError(`addDocument: a document with hash id '${id}' already exists`);
    }
    company.documents.set(id, { ewayBill: undefined });
    return id;
  }

  /** A document of a company, or `undefined` when that company has no such document. */
  document(companyId: string, hashId: string): MockDocument | undefined {
    const entry = this.#companies.get(companyId)?.documents.get(hashId);
    return entry && { hashId, companyId, ewayBill: entry.ewayBill };
  }

  /** Records the e-way bill generated for a document. */
  setEwayBill(companyId: string, hashId: string, ewayBill: MockEwayBill): void {
    const entry = this.#companies.get(companyId)?.documents.get(hashId);
    if (entry) entry.ewayBill = ewayBill;
  }

  /** Every document, of one company or of all. */
  documents(companyId?: string): MockDocument[] {
    const companies = companyId === undefined ? [...this.#companies.values()] : [this.#company(companyId, 'documents')];
    return companies.flatMap((c) =>
      [...c.documents].map(([hashId, d]) => ({ hashId, companyId: c.id, ewayBill: d.ewayBill })),
    );
  }

  /** Whether a company is connected to the e-way bill portal (false for an unknown company). */
  isPortalConnected(companyId: string): boolean {
    return this.#companies.get(companyId)?.portalConnected ?? false;
  }

  /** Connects or disconnects a company. @throws {TypeError} when the company is unknown. */
  setPortalConnected(companyId: string, connected: boolean): void {
    this.#company(companyId, 'setPortalConnected').portalConnected = connected;
  }

  /** Forgets everything. */
  clear(): void {
    this.#companies.clear();
    this.#keys.clear();
    this.#keyCount = 0;
    this.#companyCount = 0;
  }

  #company(id: string, caller: string): CompanyRecord {
    const company = this.#companies.get(id);
    if (!company) throw new TypeError(`${caller}: no company with id '${id}'`);
    return company;
  }
}
